// Status page: polls the read-only JSON API and redraws. No dependencies,
// so the page works offline and under a strict Content-Security-Policy.
"use strict";

const POLL_MS = 2000;
const MAX_PODS = 200; // rows of the pending-pods table

async function get(path) {
  const res = await fetch(path, { cache: "no-store" });
  if (!res.ok) throw new Error(path + ": HTTP " + res.status);
  return res.json();
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function cores(milli) { return (milli / 1000).toFixed(milli % 1000 === 0 ? 0 : 2); }
function mem(mib) { return mib >= 1024 ? (mib / 1024).toFixed(1) + " GiB" : mib + " MiB"; }
function pct(x) { return (100 * x).toFixed(1) + "%"; }

// fill replaces a table's body with one row per item; cells(item) returns
// the row's cells as strings or elements.
function fill(id, items, cells, empty) {
  const body = document.querySelector("#" + id + " tbody");
  const heads = document.querySelectorAll("#" + id + " thead th");
  const cols = heads.length;
  body.replaceChildren();
  if (items.length === 0) {
    const td = el("td", empty, "empty");
    td.colSpan = cols;
    body.append(el("tr")).append(td);
    return;
  }
  for (const it of items) {
    const tr = el("tr");
    for (const [i, c] of cells(it).entries()) {
      const td = el("td", undefined, heads[i] ? heads[i].className : "");
      if (c instanceof Node) td.append(c); else td.textContent = c;
      tr.append(td);
    }
    body.append(tr);
  }
}

// queueCell shows a queue of the tree indented by its depth (the API lists
// queues parents first, depth first); a child of the root is its plain name.
function queueCell(q) {
  if (!q.depth || q.depth <= 1) return q.name;
  const span = el("span", q.name, q.leaf ? "" : "parent");
  span.style.paddingLeft = (1.5 * (q.depth - 1)) + "em";
  return span;
}

function shareCell(share) {
  const span = el("span");
  const bar = el("span", undefined, "bar");
  bar.style.width = Math.round(60 * Math.min(1, share)) + "px";
  span.append(bar, pct(share));
  return span;
}

function amCell(j) {
  const span = el("span", j.am, j.am === "waiting" ? "waiting" : "");
  if (j.am_reason) span.title = j.am_reason;
  if (j.am === "waiting" && j.am_reason) span.textContent = "waiting: " + j.am_reason;
  return span;
}

// forecastCell shows a job's forecast: when it should start (while it
// waits, as the forecast saw it) and finish, and where its estimate came
// from; the full instants are in the tooltip.
function forecastCell(j, f) {
  if (!f) return "";
  if (j.forecast_beyond) return el("span", "beyond the horizon", "waiting");
  if (!j.forecast_start) return "";
  const start = Date.parse(j.forecast_start), at = Date.parse(f.at);
  const t = (s) => new Date(s).toLocaleTimeString();
  let text = start >= at ? "start " + t(j.forecast_start) + ", " : "";
  if (j.forecast_finish) text += "finish " + t(j.forecast_finish);
  const span = el("span", text + " (" + (j.forecast_source || "?") + ")");
  span.title = "start " + j.forecast_start + (j.forecast_finish ? ", finish " + j.forecast_finish : "") +
    "; estimate from " + (j.forecast_source || "?");
  return span;
}

function drawUtil(points) {
  const W = 800, H = 200;
  const line = (f) => {
    if (points.length === 0) return "";
    const t0 = Date.parse(points[0].time), t1 = Date.parse(points[points.length - 1].time);
    const span = Math.max(1, t1 - t0);
    return points.map((p, i) => {
      const x = points.length === 1 ? W : (W * (Date.parse(p.time) - t0)) / span;
      const y = H - H * Math.max(0, Math.min(1, f(p)));
      return x.toFixed(1) + "," + y.toFixed(1);
    }).join(" ");
  };
  document.getElementById("util-cpu").setAttribute("points", line((p) => p.cpu));
  document.getElementById("util-mem").setAttribute("points", line((p) => p.memory));
  const last = points[points.length - 1];
  document.getElementById("util-cpu-now").textContent = last ? pct(last.cpu) : "–";
  document.getElementById("util-mem-now").textContent = last ? pct(last.memory) : "–";
  document.getElementById("util-range").textContent = points.length === 0 ? "no samples yet" :
    points.length + " samples, " + new Date(points[0].time).toLocaleTimeString() + " – " +
    new Date(last.time).toLocaleTimeString() + "; pending pods now " + last.pending_pods;
}

async function refresh() {
  try {
    const [status, queues, jobs, nodes, decisions, util, pods] = await Promise.all(
      ["status", "queues", "jobs", "nodes", "decisions", "utilization", "pods"].map((p) => get("api/v1/" + p)));
    const s = status.items;
    document.getElementById("policy").textContent = s.policy || "–";
    document.getElementById("admission").textContent = s.admission || "–";
    document.getElementById("role").textContent = s.role;
    document.getElementById("synced").textContent = s.synced ? "yes" : "no";
    document.getElementById("updated").textContent = status.time ? new Date(status.time).toLocaleTimeString() : "never";
    document.getElementById("forecast").textContent = !s.forecast ? "none" :
      s.forecast.age_seconds.toFixed(0) + " s old" + (s.forecast.error ? " (last attempt failed: " + s.forecast.error + ")" : "");
    fill("gauges", Object.keys(s.gauges).sort().map((k) => [k, s.gauges[k]]),
      (g) => [g[0], String(Number(g[1].toFixed(6)))], "none reported");
    fill("queues", queues.items, (q) => [queueCell(q), String(q.weight), q.abs_capacity ? pct(q.abs_capacity) : "–",
      shareCell(q.share), cores(q.usage.milli_cpu),
      mem(q.usage.memory_mib), String(q.pending_pods), String(q.running_pods), String(q.jobs),
      String(q.ams_admitted), String(q.ams_waiting), (q.preempted_from || 0) + " / " + (q.preempted_for || 0)], "no queues");
    fill("jobs", jobs.items, (j) => [j.name, j.namespace, j.queue, j.state, amCell(j), String(j.pods_pending),
      String(j.pods_running), String(j.pods_done), cores(j.usage.milli_cpu), mem(j.usage.memory_mib),
      j.queue_position ? String(j.queue_position) : "", forecastCell(j, s.forecast)], "no jobs");
    fill("pods", pods.items.slice(0, MAX_PODS), (p) => [p.pod + (p.am ? " (AM)" : ""), p.job || "", p.queue || "",
      p.queue_position ? String(p.queue_position) : "", p.since ? new Date(p.since).toLocaleTimeString() : "", p.reason], "no pending pods");
    document.getElementById("pods-note").textContent = pods.items.length > MAX_PODS ?
      "the first " + MAX_PODS + " of " + pods.items.length + " (all in /api/v1/pods)" : "";
    fill("nodes", nodes.items, (n) => [n.name, el("span", n.schedulable ? "yes" : "no: " + (n.reason || ""), n.schedulable ? "" : "no"),
      cores(n.allocated.milli_cpu) + " / " + cores(n.capacity.milli_cpu - n.external.milli_cpu),
      mem(n.allocated.memory_mib) + " / " + mem(n.capacity.memory_mib - n.external.memory_mib),
      cores(n.external.milli_cpu), mem(n.external.memory_mib), String(n.pods)], "no nodes");
    fill("decisions", decisions.items.slice().reverse().slice(0, 50), (d) => [new Date(d.time).toLocaleTimeString(),
      d.pod + (d.am ? " (AM)" : ""), d.job, d.queue, d.node, d.policy, d.reason || ""], "no decisions yet");
    drawUtil(util.items);
    document.body.dataset.seq = String(status.seq);
    document.getElementById("error").hidden = true;
  } catch (e) {
    const p = document.getElementById("error");
    p.textContent = "cannot reach the scheduler: " + e.message;
    p.hidden = false;
  }
}

refresh();
setInterval(refresh, POLL_MS);
