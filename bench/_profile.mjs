// Temporary: CPU profile of the Worker under Prefer: wait load (not committed).
import WebSocket from "ws";
import { TEN_SET_STEPS, benchHub, freePort, median } from "./lib.mjs";
import { writeFileSync } from "node:fs";

const inspectorPort = await freePort();
const bench = await benchHub({ inspectorPort });
try {
  const wf = await (await bench.post("/v1/workflows", { workflow_name: "Ten", description: "b", steps: TEN_SET_STEPS })).json();
  const run = async () => {
    const r = await fetch(`${bench.hub.origin}/v1/workflows/${wf.id}/execute`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${bench.key}`, Prefer: "wait=30" }, body: "{}" });
    await r.text();
    if (r.status !== 200) throw new Error(String(r.status));
  };
  // sequential latency
  const seq = [];
  for (let i = 0; i < 40; i++) { const t = performance.now(); await run(); seq.push(performance.now() - t); }
  console.log("sequential p50", median(seq.slice(10)).toFixed(1));
  const list = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const socket = new WebSocket(list[0].webSocketDebuggerUrl, { headers: { Origin: `http://127.0.0.1:${inspectorPort}` } });
  await new Promise((res) => socket.once("open", res));
  let id = 0; const pending = new Map();
  socket.on("message", (d) => { const m = JSON.parse(String(d)); pending.get(m.id)?.(m.result); });
  const send = (method, params = {}) => new Promise((res) => { const i = ++id; pending.set(i, res); socket.send(JSON.stringify({ id: i, method, params })); });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 });
  await send("Profiler.start");
  const lat = []; let done = 0; const end = Date.now() + 10000;
  await Promise.all(Array.from({ length: 10 }, async () => { while (Date.now() < end) { const t = performance.now(); await run(); lat.push(performance.now() - t); done++; } }));
  console.log("loaded", (done / 10).toFixed(1), "req/s p50", median(lat).toFixed(1));
  const { profile } = await send("Profiler.stop");
  writeFileSync("/tmp/prof/wait.cpuprofile", JSON.stringify(profile));
  socket.close();
} finally { await bench.stop(); }
